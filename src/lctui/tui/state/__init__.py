"""What the screens show, kept apart from Textual: grids, run progress, launch estimates,
wrapping of long prompts and the SQL console's history. Nothing here is a widget."""
