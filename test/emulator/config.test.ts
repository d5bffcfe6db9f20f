import { describe, expect, it } from 'vitest';
import { loadEmulatorConfig } from '../../tools/emulator/config.js';

describe('loadEmulatorConfig', () => {
  it('parses accounts and fault rates', () => {
    const config = loadEmulatorConfig({
      EMULATOR_ACCOUNTS: '[{"apiKey":"k","appName":"a","https":false}]',
      EMULATOR_ERROR_RATE: '0.25',
    });
    expect(config.accounts).toEqual([
      { apiKey: 'k', appName: 'a', plan: 'Free', balance: 100, https: false },
    ]);
    expect(config.faults.errorRate).toBe(0.25);
    expect(config.port).toBe(4010);
  });

  it('refuses accounts that are not JSON and rates outside 0..1', () => {
    expect(() => loadEmulatorConfig({ EMULATOR_ACCOUNTS: '[{' })).toThrow(/EMULATOR_ACCOUNTS/);
    expect(() => loadEmulatorConfig({ EMULATOR_ERROR_RATE: '2' })).toThrow(/EMULATOR_ERROR_RATE/);
  });
});
