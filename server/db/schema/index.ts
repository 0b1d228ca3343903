export * from './tenancy';
export * from './catalog';
