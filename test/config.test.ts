import { describe, expect, it } from 'vitest';
import { ConfigError, loadAppConfig } from '../src/config.js';

const valid = {
  DATABASE_URL: 'file:./data/x.db',
  SHOPIFY_API_KEY: 'key',
  SHOPIFY_API_SECRET: 'super-secret-value',
  SHOPIFY_APP_URL: 'https://app.example.com',
  TRACKING_API_BASE_URL: 'https://api.example.com/v1',
  ENCRYPTION_KEY: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
};

describe('loadAppConfig', () => {
  it('reads a complete environment with defaults for the rest', () => {
    const config = loadAppConfig(valid);
    expect(config).toMatchObject({ port: 3000, role: 'all', logLevel: 'info', workerConcurrency: 16 });
    expect(config.shopify.apiSecret).toBe('super-secret-value');
  });

  it('the page scripts and the tracking page: defaults, settings, and what is refused', () => {
    expect(loadAppConfig(valid)).toMatchObject({
      adminUiScripts: 'cdn',
      trackingPage: { refreshAfterMs: 30 * 60_000 },
    });
    expect(
      loadAppConfig({ ...valid, ADMIN_UI_SCRIPTS: 'stand-in', TRACKING_PAGE_REFRESH_MINUTES: '5' }),
    ).toMatchObject({ adminUiScripts: 'stand-in', trackingPage: { refreshAfterMs: 300_000 } });
    expect(() => loadAppConfig({ ...valid, ADMIN_UI_SCRIPTS: 'local' })).toThrow(/ADMIN_UI_SCRIPTS/);
    expect(() => loadAppConfig({ ...valid, TRACKING_PAGE_REFRESH_MINUTES: '0' })).toThrow(
      /TRACKING_PAGE_REFRESH_MINUTES/,
    );
  });

  it('leases, service timeout and metrics: defaults, settings, and what is refused', () => {
    expect(loadAppConfig(valid)).toMatchObject({
      lease: { leaseMs: 15_000, renewEveryMs: 5_000 },
      trackingTimeoutMs: 10_000,
      metrics: { port: null, host: '127.0.0.1', token: null, databaseEveryMs: 60_000 },
    });
    expect(
      loadAppConfig({
        ...valid,
        WORKER_LEASE_MS: '6000',
        TRACKING_TIMEOUT_MS: '2500',
        METRICS_PORT: '9464',
        METRICS_TOKEN: 'a-token-of-16-chars',
        METRICS_DATABASE_EVERY_MS: '0',
      }),
    ).toMatchObject({
      lease: { leaseMs: 6_000, renewEveryMs: 2_000 },
      trackingTimeoutMs: 2_500,
      metrics: { port: 9464, host: '127.0.0.1', token: 'a-token-of-16-chars', databaseEveryMs: 0 },
    });
    // A renewal must come at least twice per lease, so one late renewal does not lose it.
    expect(() => loadAppConfig({ ...valid, WORKER_LEASE_MS: '6000', WORKER_LEASE_RENEW_MS: '4000' })).toThrow(
      /WORKER_LEASE_RENEW_MS: must be at most half of WORKER_LEASE_MS/,
    );
    expect(() => loadAppConfig({ ...valid, WORKER_LEASE_MS: '500' })).toThrow(/WORKER_LEASE_MS/);
    expect(() => loadAppConfig({ ...valid, METRICS_TOKEN: 'short' })).toThrow(
      /METRICS_TOKEN: must be at least 16 characters/,
    );
  });

  it('retention: defaults, settings, and what is refused', () => {
    const day = 24 * 3_600_000;
    expect(loadAppConfig(valid).retention).toEqual({
      deliveryMs: 7 * day,
      failedDeliveryMs: 30 * day,
      storeEventMs: 30 * day,
      trackerMs: 400 * day,
      batchSize: 200,
    });
    expect(
      loadAppConfig({
        ...valid,
        RETENTION_DELIVERY_DAYS: '3',
        RETENTION_FAILED_DELIVERY_DAYS: '10',
        RETENTION_STORE_EVENT_DAYS: '14',
        RETENTION_TRACKER_DAYS: '90',
        RETENTION_BATCH_SIZE: '100',
      }).retention,
    ).toEqual({
      deliveryMs: 3 * day,
      failedDeliveryMs: 10 * day,
      storeEventMs: 14 * day,
      trackerMs: 90 * day,
      batchSize: 100,
    });
    // The platform retries a delivery for 48 hours: a shorter window would let a retried duplicate in.
    expect(() => loadAppConfig({ ...valid, RETENTION_DELIVERY_DAYS: '2' })).toThrow(
      /RETENTION_DELIVERY_DAYS/,
    );
    expect(() =>
      loadAppConfig({ ...valid, RETENTION_DELIVERY_DAYS: '10', RETENTION_FAILED_DELIVERY_DAYS: '5' }),
    ).toThrow(/RETENTION_FAILED_DELIVERY_DAYS: must be at least RETENTION_DELIVERY_DAYS/);
    expect(() => loadAppConfig({ ...valid, RETENTION_TRACKER_DAYS: '7' })).toThrow(/RETENTION_TRACKER_DAYS/);
    expect(() => loadAppConfig({ ...valid, RETENTION_BATCH_SIZE: '100000' })).toThrow(/RETENTION_BATCH_SIZE/);
  });

  it('names every bad variable and never prints a value', () => {
    const attempt = () =>
      loadAppConfig({
        ...valid,
        SHOPIFY_API_SECRET: '',
        TRACKING_API_BASE_URL: 'https://api.example.com/v2/super-secret-value',
        DATABASE_URL: 'mysql://super-secret-value@x',
        PORT: 'eighty',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      for (const name of ['SHOPIFY_API_SECRET', 'TRACKING_API_BASE_URL', 'DATABASE_URL', 'PORT']) {
        expect(message).toContain(name);
      }
      expect(message).not.toContain('super-secret-value');
    }
  });

  it('accepts PostgreSQL URLs and the split roles', () => {
    const config = loadAppConfig({
      ...valid,
      DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
      ROLE: 'worker',
    });
    expect(config.role).toBe('worker');
  });
});
