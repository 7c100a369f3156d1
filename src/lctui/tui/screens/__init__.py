"""The screens of the app: results, inspector, launch, live run, help."""
