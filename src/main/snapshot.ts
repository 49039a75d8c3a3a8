import { snapshotAction } from '../actions/snapshot.js'
import { runAction } from '../platform/run.js'

await runAction(snapshotAction)
