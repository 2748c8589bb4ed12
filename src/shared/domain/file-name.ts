/**
 * One rule for file names the app makes up from user text (a survey title in a CSV download name): only
 * letters, digits, `_`, `-` and `.` stay, every other run becomes `_`, no leading dot (no hidden file,
 * no `..`), at most 80 characters; `fallback` when nothing is left. Safe in a Content-Disposition
 * header and on every OS. Pure.
 */
export function safeFileName(name: string, fallback = 'file'): string {
  const cleaned = name
    .normalize('NFKC')
    .replace(/[^\w.-]+/g, '_')
    .replace(/^[.]+/, '')
    .slice(0, 80)
  return cleaned.replace(/^_+$/, '') || fallback
}
