import { deployAction } from '../actions/deploy.js'
import { runAction } from '../platform/run.js'

await runAction(deployAction)
