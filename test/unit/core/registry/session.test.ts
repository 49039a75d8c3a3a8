import { describe, expect, test } from '@jest/globals'
import { errorCodesIn, errorCodesOf } from '../../../../src/core/registry/session.js'

describe('the error codes of a distribution API error body', () => {
  test.each<[string, string, string[], string]>([
    [
      'two codes',
      '{"errors":[{"code":"MANIFEST_UNKNOWN","message":"x"},{"code":"NAME_UNKNOWN"}]}',
      ['MANIFEST_UNKNOWN', 'NAME_UNKNOWN'],
      ', MANIFEST_UNKNOWN, NAME_UNKNOWN',
    ],
    [
      'entries that are no error object are passed over',
      '{"errors":[null,7,{"code":5},{"code":"DENIED"}]}',
      ['DENIED'],
      ', DENIED',
    ],
    [
      "a registry's own text is a code but no upper-case word",
      '{"errors":[{"code":"not found, try later"}]}',
      ['not found, try later'],
      '',
    ],
    ['no errors list', '{"errors":{"code":"DENIED"}}', [], ''],
    ['no JSON', '<html>502 Bad Gateway</html>', [], ''],
    ['JSON null', 'null', [], ''],
  ])('%s', (_case, body, codes, shown) => {
    expect(errorCodesIn(body)).toEqual(codes)
    expect(errorCodesOf(body)).toBe(shown)
  })
})
