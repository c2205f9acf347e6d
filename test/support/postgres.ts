import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

/** The local PostgreSQL the PostgreSQL tests run against (trust auth). */
export const POSTGRES_URL = process.env.PN_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * An admin connection, or undefined (with a warning) when no server answers: callers skip. On CI
 * (`CI=true`) an unreachable server fails instead, so the PostgreSQL tests can never go missing.
 */
export async function connectPostgresAdmin(): Promise<DataSource | undefined> {
  const admin = new DataSource({ type: 'postgres', url: POSTGRES_URL, connectTimeoutMS: 2000, poolSize: 1 });
  try {
    return await admin.initialize();
  } catch (error) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL unreachable at ${POSTGRES_URL} on CI: ${(error as Error).message}`);
    console.warn(`PostgreSQL unreachable at ${POSTGRES_URL} (${(error as Error).message}): skipping the PostgreSQL tests.`);
    return undefined;
  }
}

/** A fresh schema of its own and a database URL whose every connection works in it. */
export function freshSchema(): { name: string; databaseUrl: string } {
  const name = `pn_test_${randomBytes(6).toString('hex')}`;
  return { name, databaseUrl: `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${name}`)}` };
}

/**
 * Runs `fn` with the URL of a fresh schema of its own, then drops the schema; does nothing when
 * no server answers (off CI, see {@link connectPostgresAdmin}).
 */
export async function inFreshSchema(fn: (databaseUrl: string) => Promise<void>): Promise<void> {
  const admin = await connectPostgresAdmin();
  if (!admin) return;
  const schema = freshSchema();
  await admin.query(`CREATE SCHEMA ${schema.name}`);
  try {
    await fn(schema.databaseUrl);
  } finally {
    await admin.query(`DROP SCHEMA ${schema.name} CASCADE`);
    await admin.destroy();
  }
}
