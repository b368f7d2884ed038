"""What a reader sees, shared by the pages: the figures' style (each drawn for a phone too),
the Markdown table, the explorer (its model, figure, widget and kernel-free page) and the
printed report. May import every layer below it."""
