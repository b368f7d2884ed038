"""What a reader sees: figures, tables, the explorer (its model, widget and kernel-free
page) and the printed report. May import every layer below it."""
