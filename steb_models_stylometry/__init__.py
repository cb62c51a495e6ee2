"""steb-models-stylometry: non-neural style encoders registered with steb through entry points."""
