/** Pure: ready-made curl commands for the API tab, with the real base URL, token and credentials. */
import type { Instance } from '../../shared/schemas/records'

export interface CurlExample {
  title: string
  command: string
}

/** Shell-quotes a value for POSIX shells. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

export function curlExamples(base: string, token: string, inst: Instance): CurlExample[] {
  const auth = `-H ${q(`Authorization: Bearer ${token}`)}`
  const creds = `session_id=${encodeURIComponent(inst.session_id)}&access_token=${encodeURIComponent(inst.settings.access_token)}`
  const json = (o: unknown) => `-H 'Content-Type: application/json' -d ${q(JSON.stringify(o))}`
  return [
    { title: 'List instances', command: `curl -s ${auth} ${base}/chatapp` },
    { title: 'Start the session (init)', command: `curl -s -X POST ${auth} ${q(`${base}/chatapp/init?${creds}`)}` },
    { title: 'QR code as base64 text', command: `curl -s ${auth} ${q(`${base}/chatapp/scan?${creds}&format=base64text`)}` },
    { title: 'Send a text', command: `curl -s -X POST ${auth} ${json({ chatId: '15550100001', message: 'Hello from Chatapp Desk' })} ${q(`${base}/chatapp/message?${creds}`)}` },
    { title: 'Send an image', command: `curl -s -X POST ${auth} -F chatId=15550100001 -F caption=Hi -F file=@photo.jpg ${q(`${base}/chatapp/message/image?${creds}`)}` },
    { title: 'Create an intent', command: `curl -s -X POST ${auth} ${json({ title: 'Opening hours', keyword: 'hours, open', reply: 'We are open 9-17.' })} ${q(`${base}/intent?${creds}`)}` },
    { title: 'Message log', command: `curl -s ${auth} ${q(`${base}/chatapp/messages?${creds}&limit=20`)}` }
  ]
}
