/** The OpenAPI document's tags (one per controller group), each declared with its description. */
export const API_TAGS = {
  sessions: { name: 'sessions', description: 'Sessions and their tokens (spec section 8).' },
  loops: { name: 'loops', description: 'Agent loops of a session and their pending sets.' },
  processNotifications: {
    name: 'process notifications',
    description: 'Process completion notifications: delivery, the pending set, consumption.',
  },
  processLifecycle: { name: 'process lifecycle', description: 'Process lifecycle records published by the supervisor.' },
  journal: { name: 'journal', description: 'The session journal, paged and as server-sent events.' },
  admin: { name: 'admin', description: 'The operator read API across sessions (spec section 12.1), admin token only.' },
  health: { name: 'health', description: 'Liveness and readiness of this node.' },
} as const;
