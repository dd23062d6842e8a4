/* A shared object for esc_exec's dlopen attempts: the tests copy it where
 * the profile lets the command read but not execute (the workspace of
 * strict and hardened). Loading it needs its code mapped PROT_EXEC, which
 * a noexec mount refuses. */
int esc_lib_loaded(void);

int esc_lib_loaded(void)
{
  return 1;
}
