/**
 * The access layer: the one place that decides who may do what. Routes ask it (load a record with
 * the caller's rights, or require a tenant or platform capability) and never compare roles.
 */
export { PERMISSIONS, RUNGS, type Capability, type CapabilityScope, type Rung, type ServiceCapability, type TenantCapability } from './permissions';
export * from './decide';
export * from './access';
export * from './people';
export * from './streams';
export * from './visibility';
