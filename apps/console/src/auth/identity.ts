/** Who the token is (`GET /v1/whoami`): the admin, or one session. */
export type { Whoami as Identity } from 'process-notifications-client';
