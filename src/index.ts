/**
 * The one bundle, dist/index.js. `dist/<action>/index.js` run one action as a GitHub step;
 * bin/olympe-deploy.js runs the command line (GitLab jobs, people) from the same file.
 */
export { runActionStep } from './action-steps.js'
export { runCommandLine } from './command-line.js'
