/**
 * The demo HITL service: the relay's HITL service (src/hitl-service/) with the demo profile (five
 * sample review types), anonymous case creation at `POST /api/reviews` and, for tests, fault
 * injection and the `/api/_test/*` controls. The relay mounts it at `/demo` with DEMO=1 (mount.ts);
 * serve.ts runs it alone. The real peer of the tests and of the chat page's demo buttons.
 */
import {
  createHitlService,
  type HitlService,
  type HitlServiceOptions,
} from '../hitl-service/index.ts';
import type { Fault } from '../hitl-service/types.ts';
import { FaultQueue } from './faults.ts';
import { demoProfile } from './profile.ts';
import { registerCreateRoute } from './routes-create.ts';
import { registerTestRoutes } from './routes-test.ts';

/** The demo's mount path on the relay. */
export const DEMO_MOUNT_PATH = '/demo';

/** Options of the demo service: the HITL service's, with the demo's own profile and routes. */
export interface DemoServiceOptions
  extends Omit<HitlServiceOptions, 'mountPath' | 'profile' | 'faults' | 'routes'> {
  /** Where the app is mounted (default `/demo`), used when `baseUrl` is not given. */
  mountPath?: string;
  /** Serves `/api/_test/*` (submissions, act, faults, inspect). Never on in production. */
  testControls?: boolean;
}

/** A running demo service. */
export interface DemoService extends HitlService {
  /** Queues a fault for the next `count` requests to a route. */
  inject(fault: Fault): void;
}

/** Creates the demo HITL service. */
export function createDemoService(options: DemoServiceOptions = {}): DemoService {
  const { testControls, ...rest } = options;
  const faults = new FaultQueue();
  const service = createHitlService({
    ...rest,
    mountPath: options.mountPath ?? DEMO_MOUNT_PATH,
    profile: demoProfile,
    faults,
    routes: (app, deps) => {
      registerCreateRoute(app, deps);
      if (testControls === true) registerTestRoutes(app, deps, faults);
    },
  });
  return { ...service, inject: (fault) => faults.inject({ ...fault }) };
}
