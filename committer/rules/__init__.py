"""Pure committer rules (CONTRACT §2.1, §2.2): `(assertion, current_rows, now) -> Plan`.

No database, no clock, no ids: `committer.apply` supplies the rows and the commit time
and runs the resulting plan in one transaction.
"""
