/**
 * Prisma CLI configuration (Prisma 7). tracksync's own tooling does not need it (`npm run db:*`
 * drives the schema engine through the app's driver adapters); it exists so the stock CLI, where its
 * native engine is available, sees the same schema, migrations folder and database as the app:
 * `prisma migrate deploy` / `prisma migrate status` then read prisma/migrations/<provider> and
 * write the same `_prisma_migrations` table as `npm run db:migrate`.
 * The provider follows DATABASE_URL (default file:./data/dev.db), like the app.
 */
import { defineConfig } from 'prisma/config';

const url = process.env.DATABASE_URL || 'file:./data/dev.db';
const provider = /^postgres(ql)?:\/\//.test(url) ? 'postgresql' : 'sqlite';

export default defineConfig({
  // The PostgreSQL schema is derived from prisma/schema.prisma by `npm run db:generate`.
  schema: provider === 'postgresql' ? 'src/generated/schema.postgresql.prisma' : 'prisma/schema.prisma',
  migrations: { path: `prisma/migrations/${provider}` },
  datasource: { url },
});
