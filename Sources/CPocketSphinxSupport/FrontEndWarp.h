#pragma once
// Building PocketSphinx front ends safely beside each other (FrontEndWarp.c).
struct cmd_ln_s;

/// Call before building a front end (`ps_init`, `fe_init_auto_r`) from `config`; pair with
/// `ag_front_end_end`. Plain front ends build together; a warped one builds alone.
void ag_front_end_begin(struct cmd_ln_s *config);

/// The front end is built.
void ag_front_end_end(void);
