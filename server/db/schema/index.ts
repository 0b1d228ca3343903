export * from './tenancy';
export * from './catalog';
export * from './invitations';
export * from './shared';
export * from './integrations';
