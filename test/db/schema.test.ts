import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { POSTGRES_SCHEMA_PATH, SCHEMA_PATH } from '../../src/db/paths.js';
import { assertPortableSchema, derivePostgresSchema } from '../../src/db/schema.js';

const BASE = `
generator client {
  provider = "prisma-client"
  output   = "../src/generated/sqlite"
}

datasource db {
  provider = "sqlite" // the embedded default
}

model Shop {
  id String @id
}
`;

describe('derivePostgresSchema', () => {
  it('changes only the datasource provider and the generator output', () => {
    const derived = derivePostgresSchema(BASE); // written next to src/generated/postgresql
    expect(derived).toContain('provider = "postgresql" // the embedded default');
    expect(derived).toContain('output   = "./postgresql"');
    expect(derived).toContain('provider = "prisma-client"');
    expect(derived).toContain('model Shop {\n  id String @id\n}');
  });

  it('matches the derived schema written by db:generate', async () => {
    const source = await readFile(SCHEMA_PATH, 'utf8');
    // Fails when prisma/schema.prisma changed since the last `npm run db:generate` (run before tests).
    expect(await readFile(POSTGRES_SCHEMA_PATH, 'utf8')).toBe(derivePostgresSchema(source));
  });
});

describe('assertPortableSchema', () => {
  it('accepts the project schema', async () => {
    expect(() => assertPortableSchema(BASE)).not.toThrow();
    const source = await readFile(SCHEMA_PATH, 'utf8');
    expect(() => assertPortableSchema(source)).not.toThrow();
  });

  it.each([
    ['enum', `${BASE}\nenum Status {\n  A\n}\n`, /enum/],
    ['Json', BASE.replace('id String @id', 'id String @id\n  data Json'), /Json/],
    ['@db.*', BASE.replace('id String @id', 'id String @id @db.Uuid'), /@db/],
    ['postgresql source', BASE.replace('"sqlite"', '"postgresql"'), /provider/],
  ])('rejects %s', (_label, schema, message) => {
    expect(() => assertPortableSchema(schema)).toThrow(message);
  });

  it('ignores words in comments', () => {
    expect(() => assertPortableSchema(`${BASE}\n// no enum, no Json, no @db.Uuid\n`)).not.toThrow();
  });
});
