export { simulate } from './simulate';
export { h200, loadProfile, PROFILES, ProfileError, type SimProfile } from './profile';
