// Baseline (a): the floor for any JavaScript action: POST the payload with node:http.
import { request } from 'node:http'

const url = new URL(process.env.WEBHOOK_URL)
const body = process.env.PAYLOAD
const req = request(url, {
  method: 'POST',
  headers: {
    Authorization: `Bearer ${process.env.WEBHOOK_TOKEN}`,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  },
  agent: false,
})
req.on('response', (res) => {
  let text = ''
  res.on('data', (chunk) => (text += chunk))
  res.on('end', () =>
    process.exit(res.statusCode === 200 && JSON.parse(text).message === 'success' ? 0 : 1),
  )
})
req.on('error', () => process.exit(1))
req.end(body)
