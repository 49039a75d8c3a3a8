// Baseline (b): the same POST with the global fetch (undici).
const response = await fetch(process.env.WEBHOOK_URL, {
  method: 'POST',
  headers: {
    Authorization: `Bearer ${process.env.WEBHOOK_TOKEN}`,
    'Content-Type': 'application/json',
  },
  body: process.env.PAYLOAD,
})
const parsed = await response.json()
process.exit(response.status === 200 && parsed.message === 'success' ? 0 : 1)
