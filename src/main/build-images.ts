import { buildImagesAction } from '../actions/build-images.js'
import { runAction } from '../platform/run.js'

await runAction(buildImagesAction)
