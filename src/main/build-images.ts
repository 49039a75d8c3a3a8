import { run } from '../actions/build-images.js'

await run()
