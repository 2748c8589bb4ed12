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
