#!/bin/sh
# Closes its channel without answering, exits 0.
exec 0<&- 1>&-
exit 0
