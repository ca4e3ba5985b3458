/**
 * Requests no tool in the catalog can do. The router must abstain (code no_tool) instead of forcing the
 * nearest-looking call. Phrased per domain so they sit close to real tools.
 */
export const UNSATISFIABLE: Record<string, string[]> = {
  salesforce: [
    'Email the customer a refund receipt for their last order.',
    'Schedule a meeting with the account owner next Tuesday at 10.',
    'Translate the latest case description into French.',
    'Send a Slack message to the sales channel about this deal.',
    'Print the quarterly pipeline report as a PDF.',
    'Call the contact and leave a voicemail.',
    'Merge these two duplicate accounts into one.',
    'Forecast next quarter revenue with a machine learning model.',
  ],
  'oracle-ebs': [
    'Wire the refund to the customer bank account today.',
    'Email the overdue customers a dunning letter.',
    'Convert this invoice into a purchase order for the supplier.',
    'Pay the supplier invoice from AP.',
    'Run payroll for June.',
    'Upload the signed contract to the customer record.',
    'Change the functional currency of the ledger to EUR.',
    'Send the aging report to the CFO by email.',
  ],
};
