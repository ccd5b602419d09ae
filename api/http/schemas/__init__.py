"""Request and response models of the REST API (CONTRACT §10 field names), by resource."""
