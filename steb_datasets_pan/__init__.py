"""steb-datasets-pan: PAN datasets registered with steb through entry points."""
