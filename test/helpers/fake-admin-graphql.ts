/** The fake store Admin API lives in src (npm run dev runs it too); tests use it from here. */
export * from '../../tools/dev/fake-store-admin.js';
