#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# consumers/nvmeof.sh with 1% loss on the wire (both guests).
export CONS_LOSS=${CONS_LOSS:-1%} CONS_WAIT=${CONS_WAIT:-800}
. "$SROCE_TOP/tests/vm/consumers/nvmeof.sh"
