/**
 * The shared battery of tests every official Shopify session storage adapter runs, ported to vitest.
 *
 * Source: Shopify/shopify-app-js (MIT),
 *   packages/apps/session-storage/shopify-app-session-storage-test-utils/src/battery-of-tests.ts
 *   (version at commit 36c4e5ae017ef776a96bcbc7b52da4c8e8c0dbf6), with `sessionArraysEqual` from the
 *   same package's src/session-test-utils.ts.
 * The package (@shopify/shopify-app-session-storage-test-utils) is not published to our registry, so
 * it is copied here test for test: same sessions, same ids and shops, same assertions. Only the
 * harness changed (jest globals → vitest imports; `as any` → typed casts for our lint rules).
 *
 * `testRefreshTokens`: upstream later moved the refresh-token test of the memory adapter
 * (packages/apps/session-storage/shopify-app-session-storage-memory/src/__tests__/memory.test.ts,
 * "can store and delete sessions with refresh tokens") into this battery behind a third parameter
 * (`batteryOfTests(factory, testUserInfo, testRefreshTokens)`). That version of battery-of-tests.ts
 * was not available to port, so the test below is the memory adapter's test, unchanged, behind the
 * same parameter.
 */
import { Session } from '@shopify/shopify-api';
import type { SessionParams } from '@shopify/shopify-api';
import type { SessionStorage } from '@shopify/shopify-app-session-storage';
import { expect, it } from 'vitest';

const testScopes = ['test_scope'];

type OnlineAccessInfoParam = SessionParams['onlineAccessInfo'];

/** Compares two arrays of sessions that should hold the same sessions, maybe in another order. */
export function sessionArraysEqual(sessionArray1: Session[], sessionArray2: Session[]): boolean {
  if (sessionArray1.length !== sessionArray2.length) {
    return false;
  }

  for (const session1 of sessionArray1) {
    let found = false;
    for (const session2 of sessionArray2) {
      if (session1.equals(session2)) {
        found = true;
        continue;
      }
    }
    if (!found) return false;
  }
  return true;
}

/**
 * Registers the battery's tests in the current describe block. `storageFactory` is called once per
 * test; the tests reuse fixed session ids, so give the battery a storage of its own.
 */
export function batteryOfTests(
  storageFactory: () => Promise<SessionStorage>,
  testUserInfo = false,
  testRefreshTokens = false,
): void {
  it('can store and delete all kinds of sessions', async () => {
    const sessionFactories = [
      async () => {
        const session = new Session({
          id: sessionId,
          shop: 'shop',
          state: 'state',
          isOnline: false,
          scope: testScopes.toString(),
          accessToken: '123',
        });
        return session;
      },
      async () => {
        const expiryDate = new Date();
        expiryDate.setMilliseconds(0);
        expiryDate.setMinutes(expiryDate.getMinutes() + 60);
        const session = new Session({
          id: sessionId,
          shop: 'shop',
          state: 'state',
          isOnline: false,
          expires: expiryDate,
          accessToken: '123',
          scope: testScopes.toString(),
        });
        return session;
      },
      async () => {
        const session = new Session({
          id: sessionId,
          shop: 'shop',
          state: 'state',
          isOnline: false,
          expires: null as unknown as undefined,
          scope: testScopes.toString(),
          accessToken: '123',
        });
        return session;
      },
      async () => {
        const session = new Session({
          id: sessionId,
          shop: 'shop',
          state: 'state',
          isOnline: false,
          expires: undefined,
          scope: testScopes.toString(),
          accessToken: '123',
        });
        return session;
      },
      async () => {
        const session = new Session({
          id: sessionId,
          shop: 'shop',
          state: 'state',
          isOnline: false,
          scope: testScopes.toString(),
          accessToken: '123',
        });
        return session;
      },
      async () => {
        const expiryDate = new Date();
        expiryDate.setMilliseconds(0);
        expiryDate.setMinutes(expiryDate.getMinutes() + 60);
        const session = new Session({
          id: sessionId,
          shop: 'shop',
          state: 'state',
          isOnline: false,
          expires: expiryDate,
          accessToken: '123',
          scope: testScopes.toString(),
        });
        return session;
      },
      async () => {
        const session = new Session({
          id: sessionId,
          shop: 'shop',
          state: 'state',
          isOnline: false,
          expires: null as unknown as undefined,
          scope: testScopes.toString(),
          accessToken: '123',
        });
        return session;
      },
      async () => {
        const session = new Session({
          id: sessionId,
          shop: 'shop',
          state: 'state',
          isOnline: false,
          expires: undefined,
          scope: testScopes.toString(),
          accessToken: '123',
        });
        return session;
      },
    ];

    const sessionId = 'test_session';
    const storage = await storageFactory();
    for (const factory of sessionFactories) {
      const session = await factory();

      await expect(storage.storeSession(session)).resolves.toBeTruthy();
      const storedSession = await storage.loadSession(sessionId);

      expect(session.equals(storedSession)).toBeTruthy();

      expect(storedSession?.isActive(testScopes)).toBeTruthy();

      await expect(storage.deleteSession(sessionId)).resolves.toBeTruthy();
      await expect(storage.loadSession(sessionId)).resolves.toBeUndefined();

      // Deleting a non-existing session should work
      await expect(storage.deleteSession(sessionId)).resolves.toBeTruthy();
    }
  });

  it('can store sessions with unexpected fields', async () => {
    const storage = await storageFactory();
    const sessionId = 'test_session';
    const session = new Session({
      id: sessionId,
      shop: 'shop',
      state: 'state',
      isOnline: false,
    });
    (session as unknown as Record<string, unknown>).someField = 'lol';

    await expect(storage.storeSession(session)).resolves.toBeTruthy();
    const storedSession = await storage.loadSession(sessionId);
    expect(session.equals(storedSession)).toBeTruthy();
  });

  if (testUserInfo) {
    it('can store and delete sessions with user info', async () => {
      const sessionFactories = [
        async () => {
          const session = new Session({
            id: sessionId,
            shop: 'shop',
            state: 'state',
            isOnline: true,
            scope: testScopes.toString(),
            accessToken: '123',
            onlineAccessInfo: {
              associated_user: {
                id: 123,
                first_name: 'first',
                last_name: 'last',
                email: 'email@email.com',
                account_owner: true,
                locale: 'en',
                collaborator: false,
                email_verified: true,
              },
            } as OnlineAccessInfoParam,
          });
          return session;
        },
      ];

      const sessionId = 'test_session';
      const storage = await storageFactory();
      for (const factory of sessionFactories) {
        const session = await factory();

        await expect(storage.storeSession(session)).resolves.toBeTruthy();
        const storedSession = await storage.loadSession(sessionId);
        expect(session.equals(storedSession)).toBeTruthy();

        expect(storedSession?.isActive(testScopes)).toBeTruthy();

        await expect(storage.deleteSession(sessionId)).resolves.toBeTruthy();
        await expect(storage.loadSession(sessionId)).resolves.toBeUndefined();

        // Deleting a non-existing session should work
        await expect(storage.deleteSession(sessionId)).resolves.toBeTruthy();
      }
    });
  } else {
    it('can store and delete sessions with online tokens', async () => {
      const storage = await storageFactory();
      const sessionId = 'test_session';
      const session = new Session({
        id: sessionId,
        shop: 'shop',
        state: 'state',
        isOnline: true,
        onlineAccessInfo: { associated_user: { id: 123 } } as OnlineAccessInfoParam,
      });

      await expect(storage.storeSession(session)).resolves.toBeTruthy();
      const storedSession = await storage.loadSession(sessionId);

      expect(session.equals(storedSession)).toBeTruthy();
    });
  }

  if (testRefreshTokens) {
    it('can store and delete sessions with refresh tokens', async () => {
      const storage = await storageFactory();
      const sessionId = 'test_refresh_token_session';

      // Test session with refresh token only
      const sessionWithRefreshToken = new Session({
        id: sessionId,
        shop: 'shop',
        state: 'state',
        isOnline: false,
        scope: 'test_scope',
        accessToken: 'access_token_123',
        refreshToken: 'refresh_token_456',
      });

      await expect(storage.storeSession(sessionWithRefreshToken)).resolves.toBeTruthy();
      let storedSession = await storage.loadSession(sessionId);
      expect(sessionWithRefreshToken.equals(storedSession)).toBeTruthy();
      expect(storedSession?.refreshToken).toBe('refresh_token_456');
      expect(storedSession?.refreshTokenExpires).toBeUndefined();

      // Test session with refresh token and expiry
      const refreshTokenExpiryDate = new Date();
      refreshTokenExpiryDate.setMilliseconds(0);
      refreshTokenExpiryDate.setDate(refreshTokenExpiryDate.getDate() + 30);

      const sessionWithRefreshTokenAndExpiry = new Session({
        id: sessionId,
        shop: 'shop',
        state: 'state',
        isOnline: false,
        scope: 'test_scope',
        accessToken: 'access_token_789',
        refreshToken: 'refresh_token_abc',
        refreshTokenExpires: refreshTokenExpiryDate,
      });

      await expect(storage.storeSession(sessionWithRefreshTokenAndExpiry)).resolves.toBeTruthy();
      storedSession = await storage.loadSession(sessionId);
      expect(sessionWithRefreshTokenAndExpiry.equals(storedSession)).toBeTruthy();
      expect(storedSession?.refreshToken).toBe('refresh_token_abc');
      expect(storedSession?.refreshTokenExpires).toEqual(refreshTokenExpiryDate);

      // Clean up
      await expect(storage.deleteSession(sessionId)).resolves.toBeTruthy();
      await expect(storage.loadSession(sessionId)).resolves.toBeUndefined();
    });
  }

  it('wrong ids return null sessions', async () => {
    const storage = await storageFactory();
    await expect(storage.loadSession('not_a_session_id')).resolves.toBeUndefined();
  });

  it('can find all the sessions for a given shop', async () => {
    const storage = await storageFactory();
    const prefix = 'find_sessions';
    const sessions = [
      new Session({
        id: `${prefix}_1`,
        shop: 'find-shop1-sessions.myshopify.io',
        state: 'state',
        isOnline: false,
      }),
      new Session({
        id: `${prefix}_2`,
        shop: 'do-not-find-shop2-sessions.myshopify.io',
        state: 'state',
        isOnline: false,
      }),
      new Session({
        id: `${prefix}_3`,
        shop: 'find-shop1-sessions.myshopify.io',
        state: 'state',
        isOnline: false,
      }),
      new Session({
        id: `${prefix}_4`,
        shop: 'do-not-find-shop3-sessions.myshopify.io',
        state: 'state',
        isOnline: false,
      }),
    ];

    for (const session of sessions) {
      await expect(storage.storeSession(session)).resolves.toBeTruthy();
    }
    expect(storage.findSessionsByShop).toBeDefined();
    if (storage.findSessionsByShop) {
      const shop1Sessions = await storage.findSessionsByShop('find-shop1-sessions.myshopify.io');
      expect(shop1Sessions).toBeDefined();
      if (shop1Sessions) {
        expect(shop1Sessions.length).toBe(2);
        expect(
          sessionArraysEqual(shop1Sessions, [sessions[0] as Session, sessions[2] as Session]),
        ).toBeTruthy();
      }
    }
  });

  it('can delete the sessions for a given array of ids', async () => {
    const storage = await storageFactory();
    const prefix = 'delete_sessions';
    const sessions = [
      new Session({
        id: `${prefix}_1`,
        shop: 'delete-shop1-sessions.myshopify.io',
        state: 'state',
        isOnline: false,
      }),
      new Session({
        id: `${prefix}_2`,
        shop: 'do-not-delete-shop2-sessions.myshopify.io',
        state: 'state',
        isOnline: false,
      }),
      new Session({
        id: `${prefix}_3`,
        shop: 'delete-shop1-sessions.myshopify.io',
        state: 'state',
        isOnline: false,
      }),
      new Session({
        id: `${prefix}_4`,
        shop: 'do-not-delete-shop3-sessions.myshopify.io',
        state: 'state',
        isOnline: false,
      }),
    ];

    for (const session of sessions) {
      await expect(storage.storeSession(session)).resolves.toBeTruthy();
    }
    expect(storage.deleteSessions).toBeDefined();
    if (storage.deleteSessions && storage.findSessionsByShop) {
      let shop1Sessions = await storage.findSessionsByShop('delete-shop1-sessions.myshopify.io');
      expect(shop1Sessions).toBeDefined();
      if (shop1Sessions) {
        expect(shop1Sessions.length).toBe(2);
        const idsToDelete = shop1Sessions.map((session) => session.id);
        await expect(storage.deleteSessions(idsToDelete)).resolves.toBeTruthy();
        shop1Sessions = await storage.findSessionsByShop('delete-shop1-sessions.myshopify.io');
        expect(shop1Sessions).toEqual([]);
      }
    }
  });

  it('can store sessions with scope longer than 255 chars', async () => {
    const storage = await storageFactory();
    const sessionId = 'test_session';
    const session = new Session({
      id: sessionId,
      shop: 'shop',
      state: 'state',
      isOnline: false,
      scope:
        'unauthenticated_read_product_listings,unauthenticated_write_checkouts,unauthenticated_write_customers,unauthenticated_read_customer_tags,unauthenticated_read_content,unauthenticated_read_product_tags,read_orders,read_products,read_script_tags,write_script_tags,read_legal_policies',
    });

    await expect(storage.storeSession(session)).resolves.toBeTruthy();
    const storedSession = await storage.loadSession(sessionId);
    expect(session.equals(storedSession)).toBeTruthy();
  });
}
