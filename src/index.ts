/**
 * The one bundle, dist/index.js. `dist/<action>/index.js` run one action as a GitHub step;
 * bin/olympe-deploy.js runs the command line (GitLab jobs, people) from the same file.
 */
export { run as snapshot } from './actions/snapshot.js'
export { run as buildImages } from './actions/build-images.js'
export { run as deploy } from './actions/deploy.js'
export { runCommandLine } from './command-line.js'
