// The PC/SC client module.
