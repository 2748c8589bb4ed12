/** Browser file helpers: a picked File to the base64 the contract's upload takes; saving a file the core wrote. */

/** The file's bytes as base64 (no data: prefix). */
export function fileToBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve((typeof reader.result === 'string' ? reader.result : '').replace(/^data:[^,]*,/, ''))
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the file'))
    reader.readAsDataURL(file)
  })
}

/** A size for people (bytes in, 1024 to the KB): 850 B, 12.3 KB, 1.2 MB, 2.0 GB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`
  return `${(n / 1024 ** 3).toFixed(1)} GB`
}

/** Hands `blob` to the browser as a download named `fileName` (the page makes nothing of it). */
export function saveBlob(fileName: string, blob: Blob): void {
  const a = document.createElement('a')
  a.href = URL.createObjectURL(blob)
  a.download = fileName
  a.click()
  // The browser has taken the bytes once the click's download started; a large Blob is not kept longer.
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000)
}

/** Hands `text` to the browser as a download named `fileName`, of MIME type `type`. */
export function saveText(fileName: string, text: string, type: string): void {
  saveBlob(fileName, new Blob([text], { type }))
}

/** Saves a CSV the core wrote (the same file as the API's) under `fileName`. */
export function saveCsv(fileName: string, csv: string): void {
  saveText(fileName, csv, 'text/csv')
}

/** Saves a record the core answered as an indented JSON file. */
export function saveJson(fileName: string, data: unknown): void {
  saveText(fileName, `${JSON.stringify(data, null, 2)}\n`, 'application/json')
}
