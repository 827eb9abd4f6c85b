// Placeholder removed by the native runtime work.
