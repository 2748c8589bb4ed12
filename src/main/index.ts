/** Electron entry (placeholder until the shell lands). */
export {}
