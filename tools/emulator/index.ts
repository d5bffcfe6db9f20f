/** Public API of the tracking-service emulator. */
export type { CallFilter, CallLogEntry } from './call-log.js';
export { type Carrier, carriers, findCarrier, missingRequirements, providerList } from './carriers.js';
export { VirtualClock } from './clock.js';
export {
  type FaultKind,
  type FaultPlan,
  type FaultPlanInput,
  faultPlanSchema,
  type Operation,
  operations,
  parseFaultPlan,
} from './faults.js';
export {
  lifecycleSchedule,
  type ShipmentSnapshot,
  shipmentSnapshot,
  type TrackingEvent,
  type TrackingLocation,
  type TrackingStatus,
} from './lifecycle.js';
export { messages } from './operations.js';
export type { ScriptedResponse } from './script.js';
export { type EmulatorOptions, type RunningEmulator, startEmulator } from './server.js';
export {
  type Account,
  type AccountView,
  demoAccount,
  EmulatorState,
  type Tracker,
  type TrackerView,
} from './state.js';
