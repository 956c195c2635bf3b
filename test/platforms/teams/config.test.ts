import { describe, expect, it } from 'vitest';
import { readTeamsConfig, TEAMS_ENV_VARS } from '../../../platforms/teams/config.ts';
import { createTeamsAdapter } from '../../../platforms/teams/index.ts';
import { ValidationError } from '../../../src/errors.ts';
import { scrub } from '../../../src/log.ts';

const APP_ID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const PASSWORD = 'xZ8~Q.secret-value-0123456789';

function pathsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).details.map((d) => d.path);
  }
  throw new Error('expected a ValidationError');
}

describe('readTeamsConfig', () => {
  it('is null when Teams is not mentioned at all', () => {
    expect(readTeamsConfig({})).toBeNull();
    expect(readTeamsConfig({ TEAMS_ALLOW_UNAUTHENTICATED: '0' })).toBeNull();
  });

  it('reads a multi-tenant bot and registers the password as a secret', () => {
    const config = readTeamsConfig({ TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: PASSWORD });
    expect(config).toEqual({
      appId: APP_ID,
      appPassword: PASSWORD,
      appType: 'MultiTenant',
      allowUnauthenticated: false,
    });
    expect(scrub(`oops ${PASSWORD}`)).not.toContain(PASSWORD);
  });

  it('reads single-tenant and managed-identity bots', () => {
    expect(
      readTeamsConfig({
        TEAMS_APP_ID: APP_ID,
        TEAMS_APP_PASSWORD: PASSWORD,
        TEAMS_APP_TYPE: 'SingleTenant',
        TEAMS_APP_TENANT_ID: TENANT,
      }),
    ).toMatchObject({ appType: 'SingleTenant', tenantId: TENANT });
    expect(
      readTeamsConfig({
        TEAMS_APP_ID: APP_ID,
        TEAMS_APP_TYPE: 'UserAssignedMSI',
        TEAMS_APP_TENANT_ID: TENANT,
      }),
    ).toMatchObject({ appType: 'UserAssignedMSI', tenantId: TENANT });
  });

  it('refuses an empty app id unless the unauthenticated test mode is explicit', () => {
    expect(pathsOf(() => readTeamsConfig({ TEAMS_APP_ID: '' }))).toEqual(['TEAMS_APP_ID']);
    expect(readTeamsConfig({ TEAMS_APP_ID: '', TEAMS_ALLOW_UNAUTHENTICATED: '1' })).toMatchObject({
      appId: '',
      allowUnauthenticated: true,
    });
  });

  it('names the variable that is wrong', () => {
    expect(
      pathsOf(() => readTeamsConfig({ TEAMS_APP_ID: 'not-a-guid', TEAMS_APP_PASSWORD: 'x' })),
    ).toEqual(['TEAMS_APP_ID']);
    expect(pathsOf(() => readTeamsConfig({ TEAMS_APP_ID: APP_ID }))).toEqual([
      'TEAMS_APP_PASSWORD',
    ]);
    expect(
      pathsOf(() =>
        readTeamsConfig({
          TEAMS_APP_ID: APP_ID,
          TEAMS_APP_PASSWORD: PASSWORD,
          TEAMS_APP_TYPE: 'SingleTenant',
        }),
      ),
    ).toEqual(['TEAMS_APP_TENANT_ID']);
    expect(
      pathsOf(() =>
        readTeamsConfig({
          TEAMS_APP_ID: APP_ID,
          TEAMS_APP_PASSWORD: PASSWORD,
          TEAMS_APP_TYPE: 'UserAssignedMSI',
          TEAMS_APP_TENANT_ID: TENANT,
        }),
      ),
    ).toEqual(['TEAMS_APP_PASSWORD']);
    expect(
      pathsOf(() =>
        readTeamsConfig({
          TEAMS_APP_ID: APP_ID,
          TEAMS_APP_PASSWORD: PASSWORD,
          TEAMS_APP_TYPE: 'Other',
        }),
      ),
    ).toEqual(['TEAMS_APP_TYPE']);
  });

  it('never shows the password in an error', () => {
    try {
      readTeamsConfig({ TEAMS_APP_ID: 'bad', TEAMS_APP_PASSWORD: PASSWORD });
    } catch (err) {
      expect(JSON.stringify(err)).not.toContain(PASSWORD);
      expect(String(err)).not.toContain(PASSWORD);
    }
  });

  it('lists every variable it reads', () => {
    expect([...TEAMS_ENV_VARS].sort()).toEqual([
      'TEAMS_ALLOW_UNAUTHENTICATED',
      'TEAMS_APP_ID',
      'TEAMS_APP_PASSWORD',
      'TEAMS_APP_TENANT_ID',
      'TEAMS_APP_TYPE',
    ]);
  });
});

describe('createTeamsAdapter', () => {
  it('refuses an empty app id without the explicit test mode', () => {
    expect(() =>
      createTeamsAdapter({ appId: '', appType: 'MultiTenant', allowUnauthenticated: false }),
    ).toThrow(ValidationError);
  });
});
