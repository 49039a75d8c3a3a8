import * as v from 'valibot'

/** One line per problem, each led by its JSON path, so a user can find it in their file. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue)
    if (issue.type === 'strict_object' && issue.expected === 'never') {
      return `unknown key '${path ?? String(issue.input)}'`
    }
    return `${path ? `at '${path}'` : 'the document'}: ${issue.message}`
  })
}
