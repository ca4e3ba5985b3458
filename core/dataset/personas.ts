import type { Persona } from './types.js';

/** Default personas per domain (sandbox server name). Scopes mirror the sandboxes' `_meta.scopes`. */
export const DEFAULT_PERSONAS: Persona[] = [
  { name: 'sales-rep', domain: 'salesforce', scopes: ['sf.read', 'sf.account.write', 'sf.contact.write', 'sf.opportunity.write'] },
  { name: 'sales-manager', domain: 'salesforce', scopes: ['sf.read', 'sf.account.write', 'sf.contact.write', 'sf.opportunity.write', 'sf.opportunity.close'] },
  { name: 'support-agent', domain: 'salesforce', scopes: ['sf.read', 'sf.case.write'] },
  { name: 'support-lead', domain: 'salesforce', scopes: ['sf.read', 'sf.case.write', 'sf.case.escalate'] },
  { name: 'sf-admin', domain: 'salesforce', scopes: ['sf.read', 'sf.account.write', 'sf.contact.write', 'sf.opportunity.write', 'sf.opportunity.close', 'sf.case.write', 'sf.case.escalate', 'sf.admin'] },
  { name: 'ar-clerk', domain: 'oracle-ebs', scopes: ['ebs.ar.read', 'ebs.ar.write'] },
  { name: 'gl-accountant', domain: 'oracle-ebs', scopes: ['gl.read', 'gl.journal.write'] },
  { name: 'controller', domain: 'oracle-ebs', scopes: ['ebs.ar.read', 'gl.read', 'gl.journal.write', 'gl.post'] },
  { name: 'ebs-admin', domain: 'oracle-ebs', scopes: ['ebs.ar.read', 'ebs.ar.write', 'ebs.ar.admin', 'gl.read', 'gl.journal.write', 'gl.post', 'ebs.admin'] },
];

/** Personas of a domain allowed to call a tool with these required scopes. */
export function personasFor(personas: Persona[], domain: string, required: string[]): Persona[] {
  return personas.filter((p) => p.domain === domain && required.every((s) => p.scopes.includes(s)));
}
