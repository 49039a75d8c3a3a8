import type { IssueWording } from '../shared/issues.js'
import { REPO_EXPECTED } from './repo-url.js'

/** The snapshot configuration's own words for missing and unknown keys. */
export const CONFIG_WORDING: IssueWording = {
  keys: {
    '': ['snapshooter', 'git'],
    snapshooter: ['name', 'rootTags', 'exclude', 'outputDir'],
    git: ['repo', 'branch', 'commitMessage'],
  },
  missing: {
    snapshooter: 'every entry needs {"snapshooter": {"name", "rootTags", "outputDir"}}',
    name: 'give the snapshot a name',
    rootTags: 'list the element ids to snapshot, e.g. ["01850a59bb68c324907a"]',
    outputDir: 'name the folder to write to, e.g. "snapshot/my-project"',
    repo: REPO_EXPECTED,
    branch: 'name an existing branch (required when "git" is present)',
    commitMessage:
      'give a message such as "Snapshot at {date} in {folder}" (required when "git" is present)',
  },
}
