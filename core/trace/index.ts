export * from './model';
export * from './table';
export * from './json';
