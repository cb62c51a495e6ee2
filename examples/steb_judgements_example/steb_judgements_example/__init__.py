"""A worked example of a third-party human-judgement set plugin for steb (see CONTRIBUTING, "A judgement set")."""
