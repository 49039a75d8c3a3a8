/** A process environment as the platform layer reads it; src/core never reads one itself. */
export type Env = Readonly<Record<string, string | undefined>>
