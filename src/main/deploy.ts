import { run } from '../actions/deploy.js'

await run()
