import { InputError } from '../../src/core/shared/errors.js'

/** The InputError that `parse` throws; anything else, or nothing thrown, fails the test. */
export function inputErrorOf(parse: () => unknown): InputError {
  try {
    parse()
  } catch (error) {
    if (error instanceof InputError) return error
    throw error
  }
  throw new Error('expected an InputError')
}

/** The InputError that `run` rejects with; anything else, or a resolved promise, fails the test. */
export async function inputErrorOfAsync(run: () => Promise<unknown>): Promise<InputError> {
  try {
    await run()
  } catch (error) {
    if (error instanceof InputError) return error
    throw error
  }
  throw new Error('expected an InputError')
}
