/** The flow-rate module's public entry (issue 13): the traffic query's routes, the SIM service and the SIM sweep. */
export { flowRateRoutes } from './routes.ts';
export { FlowRateService } from './service.ts';
export { simUpkeep, sweepSims, SIM_SWEEP_MS, type SimSweepResult } from './upkeep.ts';
