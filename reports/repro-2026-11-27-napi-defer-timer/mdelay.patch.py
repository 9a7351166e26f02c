import sys
p=sys.argv[1]+'/net/core/dev.c'
s=open(p).read()
old='''static void napi_defer_timer_start(struct napi_struct *n,
				   unsigned long timeout)
{
	ktime_t end;
'''
assert s.count(old)==1
s=s.replace(old, old+'''
	if (timeout >= 100 * NSEC_PER_MSEC)
		mdelay(5);
''')
open(p,'w').write(s)
