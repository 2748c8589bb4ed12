/**
 * The UI's Content-Security-Policy, one string for the Electron window (header and meta tag) and the
 * web mode's index.html. Scripts only from the app itself; Mantine sets inline style attributes, so
 * styles allow 'unsafe-inline'; images may be data:/blob: URLs (QR codes, previews).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join('; ')

/**
 * Development only (`npm run dev`): Vite's React refresh injects an inline module script and talks to
 * its server over a WebSocket, so scripts allow 'unsafe-inline' and connections allow ws:. Never in a
 * build: the production policy above is what ships.
 */
export const DEV_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace(
  "connect-src 'self'",
  "connect-src 'self' ws: http://localhost:*"
)
