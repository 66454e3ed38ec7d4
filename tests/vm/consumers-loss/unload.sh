#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# consumers/unload.sh: the driver unloads after the consumers.
. "$SROCE_TOP/tests/vm/consumers/unload.sh"
