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

/** A size for people: 1.2 MB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

/** Hands `text` to the browser as a download named `fileName` (the page makes nothing of it). */
export function saveText(fileName: string, text: string, type: string): void {
  const a = document.createElement('a')
  a.href = URL.createObjectURL(new Blob([text], { type }))
  a.download = fileName
  a.click()
  setTimeout(() => URL.revokeObjectURL(a.href), 1000)
}

/** Saves a CSV the core wrote (the same file as the API's) under `fileName`. */
export function saveCsv(fileName: string, csv: string): void {
  saveText(fileName, csv, 'text/csv')
}

/** Saves a record the core answered as an indented JSON file. */
export function saveJson(fileName: string, data: unknown): void {
  saveText(fileName, `${JSON.stringify(data, null, 2)}\n`, 'application/json')
}
