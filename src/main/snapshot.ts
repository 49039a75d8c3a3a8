import { run } from '../actions/snapshot.js'

await run()
