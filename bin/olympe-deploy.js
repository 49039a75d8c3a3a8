#!/usr/bin/env node
// `olympe-deploy <command> --flags` runs the very bundle the GitHub actions run.
import { runCommandLine } from '../dist/index.js'

await runCommandLine(process.argv.slice(2))
